#!/usr/bin/env node
// The `attesto` command in a checkout: the TypeScript sources run through tsx, a devDependency (`npm
// install` brings it). Nothing ships it: the built tree (`npm run build`, the image) holds the CLI
// as JavaScript and runs it with plain node (`node cli/src/main.js`).
import { register } from "tsx/esm/api";

register();
await import("../src/main.ts");
