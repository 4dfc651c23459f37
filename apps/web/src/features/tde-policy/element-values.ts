import { type PolicyElementDetail, type PolicyElementKind } from '@ksp/contracts';

/** The policy element form: its kind, name and the entries of that kind. */
export interface Values {
  kind: PolicyElementKind;
  name: string;
  description?: string;
  resources?: { directory?: string; file?: string; include_subfolders?: boolean }[];
  users?: { uname?: string; uid?: number | null; gname?: string; gid?: number | null }[];
  processes?: { directory?: string; file?: string; signature_set_id?: string | null }[];
  source_list?: { path?: string }[];
  signatures?: { file_name?: string; hash_value?: string }[];
}

const text = (v: string | undefined) => (v ?? '').trim();

/** The body of a create or update from the form: only the entries of the kind, empty fields left out. */
export function bodyOf(v: Values) {
  const base = { name: text(v.name), description: text(v.description) };
  switch (v.kind) {
    case 'resource':
      return {
        ...base,
        resources: (v.resources ?? []).map((e) => ({
          directory: text(e.directory),
          file: text(e.file),
          include_subfolders: Boolean(e.include_subfolders),
        })),
      };
    case 'user':
      return {
        ...base,
        users: (v.users ?? []).map((e) => ({
          ...(text(e.uname) ? { uname: text(e.uname) } : {}),
          ...(e.uid != null ? { uid: e.uid } : {}),
          ...(text(e.gname) ? { gname: text(e.gname) } : {}),
          ...(e.gid != null ? { gid: e.gid } : {}),
        })),
      };
    case 'process':
      return {
        ...base,
        processes: (v.processes ?? []).map((e) => ({
          directory: text(e.directory),
          file: text(e.file),
          signature_set_id: e.signature_set_id ?? null,
        })),
      };
    case 'signature':
      return {
        ...base,
        source_list: (v.source_list ?? []).map((e) => text(e.path)).filter(Boolean),
        signatures: (v.signatures ?? []).map((e) => ({
          file_name: text(e.file_name),
          hash_value: text(e.hash_value),
        })),
      };
  }
}

/** The form values of a stored policy element. */
export function valuesOf(d: PolicyElementDetail): Values {
  return {
    kind: d.kind,
    name: d.name,
    description: d.description,
    resources: d.resources,
    users: d.users,
    processes: d.processes.map((p) => ({
      directory: p.directory,
      file: p.file,
      signature_set_id: p.signature_set_id,
    })),
    source_list: d.source_list.map((path) => ({ path })),
    signatures: d.signatures,
  };
}
