#!/usr/bin/env node
/** The `shale` command that installing `shale` provides: @shale/cli's (see its README). */
import { main } from "@shale/cli";

void main();
