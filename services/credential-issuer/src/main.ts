import { runServiceMain } from "@attesto/runtime/service";
import { credentialIssuer } from "./service.js";

await runServiceMain(credentialIssuer);
