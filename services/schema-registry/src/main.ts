import { runServiceMain } from "@attesto/runtime/service";
import { schemaRegistry } from "./service.js";

await runServiceMain(schemaRegistry);
