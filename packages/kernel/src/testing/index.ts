/**
 * In-memory fakes of the frontend (approver, asker) for tests of the kernel and its adapters.
 * @module
 */
export { ScriptedApprover, ScriptedAsker } from './fakes.js';
