import type { CredentialTypeRepository } from "./credential-type-repository.js";

/** What routes and RPC handlers work with, built once per app from the service context. */
export interface SchemaRegistryDependencies {
  repository: CredentialTypeRepository;
  /** Public URL of this registry, without a trailing slash: the base of every vct. */
  registryUrl: string;
}
