import { runServiceMain } from "@attesto/runtime";
import { scheduler } from "./service.js";

await runServiceMain(scheduler);
