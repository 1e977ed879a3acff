import { runServiceMain } from "@attesto/runtime/service";
import { verifier } from "./service.js";

await runServiceMain(verifier);
