import { runServiceMain } from "@attesto/runtime";
import { ledger } from "./service.js";

await runServiceMain(ledger);
