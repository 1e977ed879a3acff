import { runServiceMain } from "@attesto/runtime";
import { schemaRegistry } from "./service.js";

await runServiceMain(schemaRegistry);
