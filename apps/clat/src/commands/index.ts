/** Every `clat` subcommand, in help order. Add one import and one entry per command. @module */
import type { Command } from '../command.js';

export const COMMANDS: readonly Command[] = [];
