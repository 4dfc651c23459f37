import { keyLifecycleCalls } from './key-lifecycle.js';
import { keyReadCalls } from './key-read.js';
import { keyTransferCalls } from './key-transfer.js';

/** `api.key`: the calls of the key pages, by topic in key-read.ts, key-lifecycle.ts and key-transfer.ts. */
export const keyCalls = {
  list: keyReadCalls.list,
  detail: keyReadCalls.detail,
  versions: keyReadCalls.versions,
  audit: keyReadCalls.audit,
  create: keyLifecycleCalls.create,
  import: keyTransferCalls.import,
  update: keyLifecycleCalls.update,
  activate: keyLifecycleCalls.activate,
  disable: keyLifecycleCalls.disable,
  recover: keyLifecycleCalls.recover,
  addVersion: keyLifecycleCalls.addVersion,
  clone: keyLifecycleCalls.clone,
  export: keyTransferCalls.export,
  destroy: keyLifecycleCalls.destroy,
  delete: keyLifecycleCalls.delete,
};
