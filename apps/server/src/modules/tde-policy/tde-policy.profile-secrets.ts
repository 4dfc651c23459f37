import { createCipheriv, randomBytes } from 'node:crypto';
import type { AgentKey, AgentSyslogServer } from '@ksp/contracts';
import type { Executor } from '../../platform/db/database.js';
import type { TdeProfileTable } from '../../platform/db/schema.js';
import type { PolicyContext } from './tde-policy.context.js';
import type { Settings, Stored } from './tde-policy.model.js';

/** The additional data binding a sealed syslog key to its profile and place. */
const keyOwner = (profileId: string, index: number) => `ksp/secret/tde-profile/${profileId}/syslog/${index}`;

/**
 * The syslog TLS client keys of profiles: sealed under the domain KEK when saved, opened to
 * keep one an update omits, and sealed to an agent for its configuration (README.md).
 */
export function createProfileSecrets(ctx: Pick<PolicyContext, 'db' | 'sealer'>) {
  const { db, sealer } = ctx;
  return {
    /**
     * The private key of each syslog server, in clear, for checking and sealing: the one sent, or
     * (omitted) the one stored for the server of the same name and port ("" clears it).
     */
    async resolveKeys(
      settings: Settings,
      domainId: string,
      old?: { id: string; settings: Stored },
    ): Promise<(string | null)[]> {
      const keys: (string | null)[] = [];
      for (const server of settings.syslog_settings.servers) {
        // Only a TLS server with a client certificate keeps its stored key.
        if (server.privatekey !== undefined || server.protocol !== 'TLS' || !server.certificate) {
          keys.push(server.privatekey || null);
          continue;
        }
        const servers = old?.settings.syslog_settings.servers ?? [];
        const index = servers.findIndex(
          (s) => s.name === server.name && s.port === server.port && s.sealed_privatekey,
        );
        const sealed = servers[index]?.sealed_privatekey;
        keys.push(
          old && sealed
            ? (await sealer.open(db, domainId, keyOwner(old.id, index), sealed)).toString('utf8')
            : null,
        );
      }
      return keys;
    },

    /** The settings column: what was sent, the private keys sealed under the domain KEK. */
    async storedOf(
      body: Settings,
      keys: (string | null)[],
      domainId: string,
      profileId: string,
    ): Promise<Stored> {
      const servers: Stored['syslog_settings']['servers'] = [];
      for (const [i, server] of body.syslog_settings.servers.entries()) {
        const key = keys[i] ?? null;
        servers.push({
          name: server.name,
          port: server.port,
          protocol: server.protocol,
          message_format: server.message_format,
          cacertificate: server.cacertificate,
          certificate: server.certificate,
          sealed_privatekey: key
            ? await sealer.seal(db, domainId, keyOwner(profileId, i), Buffer.from(key, 'utf8'))
            : null,
        });
      }
      return {
        logging: body.logging,
        file_settings: body.file_settings,
        upload_settings: body.upload_settings,
        duplicate_settings: body.duplicate_settings,
        cache_settings: body.cache_settings,
        connect_timeout_s: body.connect_timeout_s,
        rwp_operation: body.rwp_operation,
        rwp_process_set_id: body.rwp_process_set_id,
        syslog_settings: { ...body.syslog_settings, servers },
        ldt_qos: body.ldt_qos,
      };
    },

    /**
     * The syslog servers for an agent; a private key is opened and sealed to the agent with
     * `wrap` (contracts/agent.ts `AgentSealedSecret`), and left out without it.
     */
    async agentSyslogServers(
      q: Executor,
      r: TdeProfileTable,
      s: Stored,
      wrap?: (secretId: string, material: Buffer) => AgentKey | undefined,
    ): Promise<AgentSyslogServer[]> {
      const out: AgentSyslogServer[] = [];
      for (const [i, server] of s.syslog_settings.servers.entries()) {
        const entry: AgentSyslogServer = {
          name: server.name,
          port: server.port,
          protocol: server.protocol,
          message_format: server.message_format,
          ...(server.cacertificate ? { cacertificate: server.cacertificate } : {}),
          ...(server.certificate ? { certificate: server.certificate } : {}),
        };
        if (server.sealed_privatekey && wrap) {
          const cek = randomBytes(32);
          try {
            const secretId = `syslog:${i}`;
            const key = await sealer.open(q, r.domain_id, keyOwner(r.id, i), server.sealed_privatekey);
            const wrapped = wrap(secretId, cek);
            if (wrapped) {
              const iv = randomBytes(12);
              const cipher = createCipheriv('aes-256-gcm', cek, iv);
              cipher.setAAD(Buffer.from(secretId, 'utf8'));
              const data = Buffer.concat([cipher.update(key), cipher.final()]);
              key.fill(0);
              entry.privatekey = {
                cek: wrapped,
                iv: iv.toString('base64'),
                tag: cipher.getAuthTag().toString('base64'),
                data: data.toString('base64'),
              };
            }
          } finally {
            cek.fill(0);
          }
        }
        out.push(entry);
      }
      return out;
    },
  };
}

export type ProfileSecrets = ReturnType<typeof createProfileSecrets>;
