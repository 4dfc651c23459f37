import { join } from 'node:path';
import { writeAudit } from '../audit.js';
import type { Db, Executor } from '../db/database.js';
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
export function createHsmSettings(dataDir: string, pkcs11Dirs: readonly string[]) {
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
    /** Whether this node's PIN key file opens the stored PIN (the same file as where it was sealed). */
    opensPin(sealed: string): boolean {
      try {
        this.openPin(sealed);
        return true;
      } catch {
        return false;
      }
    },
    pinFileExists: () => pinFile.exists(),
    /** The PKCS#11 root of trust a stored row describes (its PIN opened). */
    rootOf(row: HsmTable): Pkcs11Root {
      return new Pkcs11Root({
        library: row.library,
        allowedDirs: pkcs11Dirs,
        serial: row.slot_serial,
        label: row.token_label,
        pin: this.openPin(row.pin_sealed),
        keyLabel: row.key_label,
      });
    },
  };
}

export type HsmSettings = ReturnType<typeof createHsmSettings>;

/** Why `replaceHsmPin` refused; nothing was changed. */
export class HsmPinError extends Error {}

/**
 * Gives the server a new HSM user PIN without the server's help (it may be sealed because the
 * token refuses the old one): run on a node, with its data directory and database. The new PIN
 * must open a session on the token and, when the root key is wrapped by the token, unwrap it
 * (`RootUnavailable` otherwise); only then is it sealed under this node's PIN key file and
 * stored, with an audit record. A PIN key file that exists but does not open the stored PIN is
 * another node's copy gone stale: refused, since sealing under it would lock the other nodes
 * out. A missing one is made anew (`created`): copy it to every other node.
 */
export async function replaceHsmPin(
  db: Db,
  dataDir: string,
  pkcs11Dirs: readonly string[],
  pin: string,
  by: string,
): Promise<{ created: boolean; bound: boolean; pinFile: string }> {
  const settings = createHsmSettings(dataDir, pkcs11Dirs);
  const row = await settings.row(db).catch(() => {
    throw new HsmPinError(
      "This database holds no KSP HSM settings: give the server's KSP_DATA_DIR and KSP_DATABASE_URL",
    );
  });
  if (!row) throw new HsmPinError('No HSM is configured on this server: bind one from settings › HSM');
  if (!pin) throw new HsmPinError('The new PIN is empty');
  if (settings.pinFileExists() && !settings.opensPin(row.pin_sealed))
    throw new HsmPinError(
      `${settings.pinFilePath} does not open the stored PIN: it is not the file the PIN was sealed under. ` +
        'Copy hsm-pin.key from the node that bound the HSM, or remove this one to seal the PIN under a new file ' +
        '(then copy that file to every other node)',
    );
  const state = await db
    .selectFrom('system_state')
    .select(['root_provider', 'root_key_wrapped', 'seal_fingerprint'])
    .where('id', '=', 'system')
    .executeTakeFirst();
  const bound = state?.root_provider === 'pkcs11' && !!state.root_key_wrapped;
  const root = new Pkcs11Root({
    library: row.library,
    allowedDirs: pkcs11Dirs,
    serial: row.slot_serial,
    label: row.token_label,
    pin,
    keyLabel: row.key_label,
  });
  if (bound) {
    root.unwrap({ wrapped: state.root_key_wrapped!, fingerprint: state.seal_fingerprint }).fill(0);
  } else {
    root.roundTrip(false);
  }
  const created = !settings.pinFileExists();
  const at = new Date();
  await db.transaction().execute(async (trx) => {
    await trx
      .updateTable('hsm')
      .set({ pin_sealed: settings.sealPin(pin), updated_at: at.toISOString() })
      .where('id', '=', HSM_ROW)
      .execute();
    await writeAudit(
      trx,
      {
        who: { userId: null, username: by, domainId: null, domainName: '', source: 'cli' },
        action: 'hsm.pin',
        target: row.token_label,
        result: 'success',
        ip: '',
        details: { serial: row.slot_serial, bound, pin_file_created: created },
      },
      at,
    );
  });
  return { created, bound, pinFile: settings.pinFilePath };
}
