import { runServiceMain } from "@attesto/runtime/service";
import { holder } from "./service.js";

await runServiceMain(holder);
