import { runServiceMain } from "@attesto/runtime";
import { verifier } from "./service.js";

await runServiceMain(verifier);
