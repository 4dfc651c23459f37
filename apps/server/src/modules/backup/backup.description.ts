import { formatMessage, type Language } from '@ksp/contracts';
import type { BackupTable } from '../../platform/db/schema.js';
import { storedMessage } from '../../platform/stored-message.js';

/**
 * Descriptions the server makes for backups (the scheduler's key-rotation backups) are stored
 * as a message key and its parameters, and put in the reader's language when read; the key
 * and parameters are answered too (`description_message`), for a client that shows them in a
 * language of its own. Descriptions a person typed are kept and answered as typed.
 */

const ROTATION = 'backup.rotationDescription';

/** What rows written before descriptions were stored as messages hold (English only). */
const LEGACY_ROTATION = /^Key rotation: task (.+), run ([0-9a-f-]{1,64})$/;

export interface DescriptionMessage {
  key: typeof ROTATION;
  params: { task: string; run: string };
}

/** The stored description of the backup a key-rotation run takes before it rotates. */
export const rotationDescription = (task: string, run: string): string =>
  storedMessage(ROTATION, { task, run });

/** The message a backup's stored description holds, when the server made it; null otherwise. */
export function descriptionMessage(scope: BackupTable['scope'], stored: string): DescriptionMessage | null {
  // Only the server makes key-rotation backups: a description a person typed is never read as a message.
  if (scope !== 'key_rotation') return null;
  if (stored.startsWith('{"key":')) {
    try {
      const { key, params } = JSON.parse(stored) as { key?: unknown; params?: Record<string, unknown> };
      if (key === ROTATION && typeof params?.task === 'string' && typeof params.run === 'string')
        return { key: ROTATION, params: { task: params.task, run: params.run } };
    } catch {
      // Not one of ours (an archive made elsewhere): shown as it is.
    }
    return null;
  }
  const legacy = LEGACY_ROTATION.exec(stored);
  return legacy ? { key: ROTATION, params: { task: legacy[1]!, run: legacy[2]! } } : null;
}

/** A backup's description for a reader in `lang`, and the message it was made from (if any). */
export function describeBackup(
  scope: BackupTable['scope'],
  stored: string,
  lang: Language,
): { description: string; description_message: DescriptionMessage | null } {
  const message = descriptionMessage(scope, stored);
  return {
    description: message ? formatMessage(message.key, lang, message.params) : stored,
    description_message: message,
  };
}
