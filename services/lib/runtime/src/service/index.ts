// `@attesto/runtime/service`: how a service is composed and run (context, launch, readiness, main).
export {
  type Clock,
  closeOnSignals,
  createServiceContext,
  launchService,
  type RunningService,
  readinessChecksOf,
  type ServiceContext,
  type ServiceDefinition,
  systemClock,
} from "./launch.js";
export { readPackageVersion } from "./package-version.js";
export {
  checkReadiness,
  databaseCheck,
  migrationsCheck,
  peerCheck,
  type ReadinessCheck,
  type ReadinessReport,
  registerReadinessRoute,
} from "./readiness.js";
export { createServiceApp, perService, runServiceMain, type ServiceModule } from "./service-module.js";
