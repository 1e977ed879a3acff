/**
 * `attesto <command> --help` (and `attesto help <command>`): each command's usage, what it does,
 * its options and examples. The global options and exit codes close every page.
 */
const GLOBAL = `global options:
  --data-dir DIR          the platform's data folder (default .attesto, or ATTESTO_DATA_DIR)
  --credential-file FILE  the operator's identity key (default: SERVICE_IDENTITY_KEY, else DIR/secrets.json)
  -h, --help              this help

exit codes: 0 done, 1 the platform refused or is unreachable (or a resource is not Ready), 2 a wrong
command line, file or setting`;

const PAGES: Record<string, string> = {
  apply: `usage: attesto apply -f <file|dir> [-f ...] [--api-key-dir DIR]

Creates or updates the Tenant, Issuer and VerifierPolicy (and v1 Secret) documents of the files (a
directory: every *.yaml, *.yml and *.json in it, recursively), one line per resource. \${NAME} and
\${NAME:-default} in values are taken from the environment. Nothing is applied when one document is
invalid.

options:
  -f, --filename PATH   a manifest file or directory (repeatable)
  --api-key-dir DIR     write a new tenant's API key (and generated webhook secret) to DIR/<tenant>.key
                        instead of printing it once

examples:
  attesto apply -f examples/walkthrough --api-key-dir ./keys
  SCHEMA_REGISTRY_URL=http://localhost:18086 attesto apply -f tenant.yaml -f policies/`,
  delete: `usage: attesto delete -f <file|dir> [-f ...]

Deletes the resources the files declare; each finalizer runs first, as with the operator (a Tenant
goes once no Issuer or VerifierPolicy names it).

options:
  -f, --filename PATH   a manifest file or directory (repeatable)

example:
  attesto delete -f examples/walkthrough`,
  get: `usage: attesto get tenants|issuers|verifierpolicies [NAME] [-o json|yaml]

The resources applied from this data folder, with the status the reconcilers wrote (a table, or the
object with -o). Reads the local state file only. An empty list prints "no <kind>" on stderr.

options:
  -o, --output FORMAT   json or yaml

examples:
  attesto get tenants
  attesto get verifierpolicies demo-university -o yaml`,
  webhooks: `usage: attesto webhooks list <tenant>
       attesto webhooks set <tenant> --url URL [--events a,b] [--url URL ...] [--secret-file FILE]

list: the tenant's endpoints, "<url><TAB><events or *>" (never the signing secret); none: a line
on stderr. set: replaces them (each --events belongs to the --url before it); without
--secret-file the secret is kept, or generated and printed once.

examples:
  attesto webhooks list demo-university
  attesto webhooks set demo-university --url https://hooks.example/attesto --events verification.completed`,
  apikey: `usage: attesto apikey rotate <tenant> [--api-key-dir DIR]

Revokes every API key of the tenant and issues a new one, written to DIR/<tenant>.key or printed once.

example:
  attesto apikey rotate demo-university --api-key-dir ./keys`,
  tenants: `usage: attesto tenants approve <tenant>

Admits a tenant that applied through POST /v1/apply while the trust registry runs with
TENANT_ADMISSION=approval. Approving an approved tenant changes nothing.

example:
  attesto tenants approve acme`,
  types: `usage: attesto types add -f <type.json|dir> [-f ...]
       attesto types list [--format dc+sd-jwt|mso_mdoc]

add: registers credential types with the schema registry and gives every tenant a credential
configuration for each. One line per type; an invalid file lists every problem (exit 2).
list: one tab-separated row per type: type, version, format, status, and the doctype (mso_mdoc)
or vct (dc+sd-jwt).

examples:
  attesto types add -f employee-badge.json
  attesto types list --format mso_mdoc`,
  "dead-letters": `usage: attesto dead-letters list [--tenant T]
       attesto dead-letters retry [--tenant T] [<object_id> ...] [--delivery <delivery_id> ...]

list: dead notarizations and webhook deliveries, tab-separated; none: "no dead letters" on stderr.
retry: gives them (all, or the ones named) a new round of attempts.

examples:
  attesto dead-letters list --tenant demo-university
  attesto dead-letters retry --delivery 3f1c…`,
  notarization: `usage: attesto notarization verify <reference.json|credential.json|-> --rpc-url URL [--confirmations N]
       attesto notarization show <object_id>

verify checks a notarized credential's reference on an EVM chain (scheduler LEDGER_BACKEND=evm)
against the chain alone: the digest chain, the inclusion proof, the transaction and its calldata.
It takes what the platform shows: the holder's stored credential (GET /v1/vc/:id, also checked to
be the credential the reference is for), the credential issuer's record (GET /v1/credentials/:id),
a credential.notarized event, or the output of show. No platform connection. "verified: …" on
stdout (exit 0), or each failure as "not verified: …" (exit 1). --rpc-url defaults to EVM_RPC_URL.
show (operator) prints a notarization's anchored reference from the scheduler.

examples:
  attesto notarization verify credential.json --rpc-url http://127.0.0.1:8545
  curl -s -H "Authorization: Bearer $TOKEN" "$HOLDER/v1/vc/$ID" | attesto notarization verify - --confirmations 3`,
};

/** The help page of `command`, or undefined for an unknown command. */
export function helpFor(command: string): string | undefined {
  const page = PAGES[command];
  return page === undefined ? undefined : `${page}\n\n${GLOBAL}`;
}
