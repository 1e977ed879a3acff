import { runServiceMain } from "@attesto/runtime";
import { credentialIssuer } from "./service.js";

await runServiceMain(credentialIssuer);
