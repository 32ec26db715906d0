#!/usr/bin/env node
/**
 * The `shale` bin. Everything is in program.ts (the commands) and process.ts (this process's
 * streams and exit code). `shale --help` lists the commands; `shale <command> --help`
 * explains one.
 */
import { main } from "./process.js";

void main();
