import { join } from 'node:path';
import type { Executor } from '../db/database.js';
import type { HsmTable } from '../db/schema.js';
import { aeadOpen, aeadSeal } from './aead.js';
import { SealFile } from './keyring.js';
import { Pkcs11Root } from './pkcs11-root.js';
import { RootUnavailable } from './root-of-trust.js';

const PIN_AAD = 'ksp/hsm-pin';
export const HSM_ROW = 'hsm';
export const HSM_PIN_FILE = 'hsm-pin.key';

/**
 * The HSM's settings as the system module (unsealing at start) and the hsm module (the calls)
 * both read them. The PIN must be usable before the root key is, so it cannot be sealed by the
 * keyring: it is sealed (AES-256-GCM) under the key of `<data dir>/hsm-pin.key` (mode 0600),
 * so neither the database nor that file alone gives it away.
 */
export function createHsmSettings(dataDir: string) {
  const pinFile = new SealFile(join(dataDir, HSM_PIN_FILE));

  function pinKey(create: boolean): Buffer {
    const key = pinFile.read() ?? (create && !pinFile.exists() ? pinFile.create() : null);
    if (!key) throw new RootUnavailable('hsm.pinFile', { file: pinFile.path });
    return key;
  }

  return {
    pinFilePath: pinFile.path,
    sealPin(pin: string): string {
      const key = pinKey(true);
      try {
        return aeadSeal(key, Buffer.from(pin, 'utf8'), PIN_AAD);
      } finally {
        key.fill(0);
      }
    },
    openPin(sealed: string): string {
      const key = pinKey(false);
      try {
        return aeadOpen(key, sealed, PIN_AAD).toString('utf8');
      } catch {
        throw new RootUnavailable('hsm.pinFile', { file: pinFile.path });
      } finally {
        key.fill(0);
      }
    },
    async row(db: Executor): Promise<HsmTable | undefined> {
      return db.selectFrom('hsm').selectAll().where('id', '=', HSM_ROW).executeTakeFirst();
    },
    /** The PKCS#11 root of trust a stored row describes (its PIN opened). */
    rootOf(row: HsmTable): Pkcs11Root {
      return new Pkcs11Root({
        library: row.library,
        serial: row.slot_serial,
        label: row.token_label,
        pin: this.openPin(row.pin_sealed),
        keyLabel: row.key_label,
      });
    },
  };
}

export type HsmSettings = ReturnType<typeof createHsmSettings>;
