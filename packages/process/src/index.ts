/**
 * @clat/process: process groups for CLAT's Node hosts. A child spawned `detached` leads its own
 * group, so one signal reaches everything it started; this package signals, watches and kills
 * such groups, and kills the ones still tracked when the host exits.
 * @module
 */
export {
  groupAlive,
  groupMembers,
  killGroup,
  pidAlive,
  scanProcesses,
  signalGroup,
  /** @public waits for a group a host signalled itself (README "Exports") */
  waitGroupGone,
} from './process-group.js';
export {
  killTrackedGroups,
  onHostEnding,
  trackedGroupCount,
  trackGroup,
  untrackGroup,
} from './tracked-groups.js';
