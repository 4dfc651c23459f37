import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './platform/config.js';
import { openDatabase } from './platform/db/database.js';

async function main(): Promise<void> {
  const config = loadConfig();
  const database = openDatabase({
    url: config.databaseUrl,
    dataDir: config.dataDir,
    sqliteSynchronous: config.sqliteSynchronous,
  });
  const { app, setupCode } = await buildApp({ config, database });
  const address = await app.listen({ host: config.host, port: config.port });
  app.log.info({ database: database.location, engine: database.engine }, 'database');
  console.warn(
    `KSP is listening on ${address.replace('0.0.0.0', '127.0.0.1')} (database: ${database.engine} ${database.location})`,
  );
  if (setupCode) {
    // On stdout on purpose: whoever can read the server's console (or its data directory)
    // may run the first-run calls from the network; nobody else can.
    process.stdout.write(
      `KSP first-run setup code: ${setupCode} (also in ${config.dataDir}/setup-code; ` +
        'the initialization and activation calls need it; it is removed once the system is activated)\n',
    );
  }
  const stop = async (signal: string) => {
    app.log.info({ signal }, 'stopping');
    await app.close();
    await database.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError) {
    console.error(`KSP cannot start: ${err.message}`);
  } else {
    console.error('KSP failed to start:', err instanceof Error ? err.message : err);
  }
  process.exit(1);
});
