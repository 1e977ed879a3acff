import { runServiceMain } from "@attesto/runtime/service";
import { authServer } from "./service.js";

await runServiceMain(authServer);
