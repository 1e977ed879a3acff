export * from "./commands/apikey.js";
export * from "./commands/dead-letters.js";
export * from "./commands/reveal.js";
export * from "./connection.js";
export * from "./control-plane.js";
export * from "./local-cluster/local-cluster.js";
export * from "./manifests/read-manifests.js";
export * from "./manifests/validate-manifest.js";
