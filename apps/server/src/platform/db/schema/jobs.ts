/** Background work: job leases and runs, scheduled tasks, backups and their keys. */
export interface JobTables {
  job_lease: JobLeaseTable;
  job_run: JobRunTable;
  scheduler_task: SchedulerTaskTable;
  scheduler_run: SchedulerRunTable;
  scheduler_run_key: SchedulerRunKeyTable;
  backup_key: BackupKeyTable;
  backup: BackupTable;
}

/** Who runs a job now: one node at a time, until the lease expires unless renewed. */
export interface JobLeaseTable {
  /** The job's name. */
  name: string;
  /** The node name holding the lease; '' when released. */
  holder: string;
  expires_at: string;
}

/** One run of a job: the history, and the checkpoint an interrupted run resumes from. */
export interface JobRunTable {
  id: string;
  job: string;
  /** The node that ran it (the last one, for a resumed run). */
  node: string;
  started_at: string;
  finished_at: string | null;
  state: 'running' | 'success' | 'failure';
  /** JSON the job saved as it went; a run left 'running' resumes from it. */
  checkpoint: string | null;
  /** The failure's message. */
  error: string | null;
}

/** A scheduled task of a domain (migration 020): a key rotation on a cron schedule. */
export interface SchedulerTaskTable {
  id: string;
  domain_id: string;
  domain_name: string;
  name: string;
  description: string;
  type: string;
  cron: string;
  /** JSON of the run-interval builder's choice, or null for a cron typed in. */
  interval: string | null;
  start_at: string | null;
  end_at: string | null;
  enabled: number;
  /** JSON of the key-rotation query. */
  query: string;
  next_run_at: string | null;
  last_run_at: string | null;
  last_result: string | null;
  last_error: string | null;
  created_by: string;
  created_at: string;
  updated_at: string;
}

/** One run of a scheduled task (migration 020). */
export interface SchedulerRunTable {
  id: string;
  task_id: string;
  domain_id: string;
  task_name: string;
  trigger: string;
  state: string;
  requested_by: string;
  node: string | null;
  backup_id: string | null;
  matched: number;
  rotated: number;
  failed: number;
  error: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

/** A key a run matched (migration 020): `pending`, then `rotated` with its new version, or `failed`. */
export interface SchedulerRunKeyTable {
  run_id: string;
  seq: number;
  key_id: string;
  key_name: string;
  result: string;
  version: number | null;
  error: string | null;
  at: string | null;
}

/** A backup key (migration 019): AES-256 material sealed under the root-derived backup-key wrapping key. */
export interface BackupKeyTable {
  id: string;
  name: string;
  scope: 'system' | 'domain';
  domain_id: string;
  domain_name: string;
  is_default: number;
  material_sealed: string;
  kcv: string;
  created_at: string;
  created_by: string;
}

/** A backup (migration 019): its archive is `<data dir>/backups/<id>.kspb`. */
export interface BackupTable {
  id: string;
  scope: 'system' | 'domain' | 'partial' | 'key_rotation';
  domain_id: string;
  domain_name: string;
  description: string;
  backup_key_id: string;
  /** JSON of the partial backup's filter (`{}` otherwise). */
  filters: string;
  status: 'backing_up' | 'completed' | 'failed';
  progress: number;
  restore_status: 'restoring' | 'restored' | 'failed' | null;
  restored_at: string | null;
  error: string | null;
  /** bigint: PostgreSQL answers it as a string. */
  size: number | string;
  sha256: string;
  /** JSON `{ table: rows }`. */
  counts: string;
  format_version: number;
  source_version: string;
  uploaded: number;
  /** 1: the archive also needs the secret the bound HSM sealed (header `hsm`). */
  tied_to_hsm: number;
  created_at: string;
  created_by: string;
  finished_at: string | null;
  /** The node whose backup directory holds the archive; null while queued (migration 022). */
  node: string | null;
}
