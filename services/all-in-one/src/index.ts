export { type LauncherConfig, launcherConfigSchema, loadLauncherConfig } from "./config.js";
export { type Platform, type PlatformOptions, type PlatformService, startPlatform } from "./platform.js";
export { formatReadyReport } from "./print-ready.js";
export { platformServices } from "./services.js";
export { describeStartupError, StartupError } from "./startup-error.js";
