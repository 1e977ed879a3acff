/** The first version of a type, whose configuration id is the bare type name. */
const FIRST_VERSION = "v1";

/**
 * credential_configuration_id of a tenant's configuration for a credential type: the type name for
 * its `v1` (e.g. `university-diploma`), `<type>-<version>` for any other version
 * (`university-diploma-v2`), so that ids stay stable when a type gains versions.
 */
export function credentialConfigurationId(type: string, version: string): string {
  return version === FIRST_VERSION ? type : `${type}-${version}`;
}
