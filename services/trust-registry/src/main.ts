import { runServiceMain } from "@attesto/runtime/service";
import { trustRegistry } from "./service.js";

await runServiceMain(trustRegistry);
