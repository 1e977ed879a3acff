import { runServiceMain } from "@attesto/runtime";
import { holder } from "./service.js";

await runServiceMain(holder);
