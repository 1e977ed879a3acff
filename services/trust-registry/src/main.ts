import { runServiceMain } from "@attesto/runtime";
import { trustRegistry } from "./service.js";

await runServiceMain(trustRegistry);
