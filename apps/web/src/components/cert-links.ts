import { menuModel, type MenuNode } from '@ksp/contracts';

/** The search param that opens a certificate's details on the local certificates page. */
export const CERT_PARAM = 'cert';
/** The search param that opens a local CA's details (on the page's CA tab). */
export const CA_PARAM = 'ca';

function localCertPath(nodes: readonly MenuNode[] = menuModel): string | undefined {
  for (const node of nodes) {
    if (node.component === 'console/cert/local/index') return node.path;
    const inner = localCertPath(node.children ?? []);
    if (inner) return inner;
  }
  return undefined;
}

/** A link that opens a certificate's (or a local CA's) details, from any page of the console. */
export function certHolderPath(holder: { kind: 'certificate' | 'ca'; id: string }): string {
  const base = localCertPath() ?? '/console/cert/local';
  const params = new URLSearchParams(
    holder.kind === 'ca' ? { tab: 'cas', [CA_PARAM]: holder.id } : { [CERT_PARAM]: holder.id },
  );
  return `${base}?${params.toString()}`;
}
