import { runServiceMain } from "@attesto/runtime";
import { authServer } from "./service.js";

await runServiceMain(authServer);
