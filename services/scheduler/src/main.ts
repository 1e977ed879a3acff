import { runServiceMain } from "@attesto/runtime/service";
import { scheduler } from "./service.js";

await runServiceMain(scheduler);
