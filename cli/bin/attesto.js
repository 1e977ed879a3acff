#!/usr/bin/env node
// The `attesto` command. The CLI is TypeScript, run through tsx (a dependency), so that a fresh clone
// needs nothing but `npm install`.
import { register } from "tsx/esm/api";

register();
await import("../src/main.ts");
