import { runOperatorMain } from "./run-operator-main.js";

await runOperatorMain(process.env);
