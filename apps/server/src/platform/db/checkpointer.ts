import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** How often the background thread copies committed WAL pages into the database file. */
const CHECKPOINT_EVERY_MS = 250;

/**
 * Runs in a worker thread with its own connection. A PASSIVE checkpoint never waits for
 * the writer and never blocks it; whatever it could not copy is copied the next time.
 * Plain CommonJS, so that the same code runs from the sources (tests) and from the build.
 */
const workerSource = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 5000');
db.pragma('synchronous = NORMAL');
const step = () => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch (err) {
    parentPort.postMessage({ error: String((err && err.message) || err) });
  }
};
const timer = setInterval(step, workerData.every);
parentPort.on('message', (message) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  step();
  db.close();
  parentPort.close();
});
`;

export interface Checkpointer {
  stop(): Promise<void>;
}

/**
 * SQLite copies the write-ahead log into the database file (a checkpoint, with its fsync)
 * inside whichever commit crosses the threshold, on the event loop: a third of the cost
 * of each write, and the slowest answers. Here the main connection never checkpoints and
 * a worker thread does it in the background. If the worker fails, the main connection
 * takes checkpoints back.
 */
export function startCheckpointer(
  sqlite: { pragma(source: string): unknown },
  file: string,
  warn: (message: string) => void,
): Checkpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(workerSource, {
    eval: true,
    workerData: { driver, file, every: CHECKPOINT_EVERY_MS },
  });
  sqlite.pragma('wal_autocheckpoint = 0');
  let stopped = false;
  const fallBack = (why: string) => {
    if (stopped) return;
    warn(`Background WAL checkpoints stopped (${why}); the database connection takes them over`);
    sqlite.pragma('wal_autocheckpoint = 1000');
  };
  worker.on('message', (m: { error?: string }) => {
    if (m.error) warn(`WAL checkpoint failed: ${m.error}`);
  });
  worker.on('error', (err) => fallBack(err.message));
  const exited = new Promise<void>((resolve) =>
    worker.once('exit', (code) => {
      fallBack(`the thread ended with code ${code}`);
      resolve();
    }),
  );
  worker.unref();
  return {
    async stop() {
      stopped = true;
      // Referenced again while it stops: a short-lived process (the ksp command) waiting for
      // this exit must not end first, silently, because only an unreferenced thread is left.
      worker.ref();
      worker.postMessage('stop');
      await exited;
    },
  };
}
