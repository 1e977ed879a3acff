// `npm run build`: the runtime file tree (compiled JavaScript, see compile.ts) in dist/app, which the
// Dockerfile copies into the image. Usage: npm run build [-- <out dir>]
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { buildRuntimeTree } from "./compile.js";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const outRoot = resolve(process.argv[2] ?? join(repoRoot, "dist", "app"));
buildRuntimeTree(repoRoot, outRoot);
console.log(`runtime tree built in ${outRoot}`);
