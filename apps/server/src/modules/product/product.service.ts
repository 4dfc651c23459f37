import {
  CLIENT_ERROR_SECONDS,
  CLIENT_WARNING_SECONDS,
  consoleAreas,
  stateLabel,
  type KeyState,
  type LicenseFeature,
  type ProductFigureName,
  type ProductId,
  type ProductTile,
} from '@ksp/contracts';
import type { Clock } from '../../platform/auth/session.service.js';
import type { Db } from '../../platform/db/database.js';
import type { Actor } from '../../platform/http/route.js';
import type { ModuleServices } from '../../platform/module.js';
import { clientCounts, countInDomain, keyCountsByState } from './product.store.js';

/** The product list of docs/console.md#products-and-sub-consoles, in its order, with the area each opens and its licensed feature. */
const products: readonly {
  product: ProductId;
  area: ProductTile['area'];
  feature: LicenseFeature;
  clientType?: 'tde' | 'rdm' | 'kadp';
}[] = [
  { product: 'tde', area: 'cte', feature: 'tde_clients', clientType: 'tde' },
  { product: 'kadp', area: 'kadp', feature: 'kadp_clients', clientType: 'kadp' },
  { product: 'kms', area: 'kms', feature: 'keys' },
  { product: 'rdm', area: 'rdm', feature: 'rdm_clients', clientType: 'rdm' },
  { product: 'sms', area: 'credential', feature: 'sms_servers' },
];

type Figures = { name: ProductFigureName; value: number }[];
const n = (value: unknown) => Number(value ?? 0);
const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The product page's figures (README.md): every count is of the caller's current domain; the
 * licence's installation-wide use only for a root-domain session.
 */
export function createProductService(deps: {
  db: Db;
  clock: Clock;
  license: () => ModuleServices['license'] | undefined;
}) {
  const { db, clock } = deps;

  /** Clients of the domain by type and status (the client module's thresholds); deleted ones are not counted. */
  async function clientFigures(domainId: string): Promise<Map<string, Figures>> {
    const now = clock().getTime();
    const warn = iso(now - CLIENT_WARNING_SECONDS * 1000);
    const error = iso(now - CLIENT_ERROR_SECONDS * 1000);
    const rows = await clientCounts(db, domainId, warn, error);
    const out = new Map<string, Figures>();
    for (const r of rows) {
      out.set(r.type, [
        { name: 'clients', value: n(r.total) },
        { name: 'healthy', value: n(r.healthy) },
        { name: 'warning', value: n(r.warning) },
        { name: 'error', value: n(r.error) },
        { name: 'revoked', value: n(r.revoked) },
      ]);
    }
    return out;
  }

  const noClients = (): Figures =>
    (['clients', 'healthy', 'warning', 'error', 'revoked'] as const).map((name) => ({ name, value: 0 }));

  /** Keys of the domain by state label, from the tally the key module keeps; destroyed keys are not counted. */
  async function keyFigures(domainId: string): Promise<Figures> {
    const rows = await keyCountsByState(db, domainId);
    const by = { in_use: 0, inactive: 0, disabled: 0 };
    for (const r of rows) {
      const label = stateLabel(r.state as KeyState);
      if (label === 'in-use') by.in_use += n(r.n);
      else if (label === 'inactive') by.inactive += n(r.n);
      else if (label === 'disabled') by.disabled += n(r.n);
    }
    return [
      { name: 'keys', value: by.in_use + by.inactive + by.disabled },
      { name: 'in_use', value: by.in_use },
      { name: 'inactive', value: by.inactive },
      { name: 'disabled', value: by.disabled },
    ];
  }

  async function smsFigures(domainId: string): Promise<Figures> {
    const [credentials, servers] = await Promise.all([
      countInDomain(db, 'credential', domainId),
      countInDomain(db, 'ssh_server', domainId),
    ]);
    return [
      { name: 'credentials', value: credentials },
      { name: 'servers', value: servers },
    ];
  }

  return {
    async overview(actor: Actor): Promise<{ tiles: ProductTile[] }> {
      const permitted = (area: ProductTile['area']) => actor.permissions.has(consoleAreas[area].permission);
      const clients = products.some((p) => p.clientType && permitted(p.area))
        ? await clientFigures(actor.domainId)
        : new Map<string, Figures>();
      const license = await deps.license()?.overview();
      const tiles: ProductTile[] = [];
      for (const p of products) {
        const allowed = permitted(p.area);
        let figures: Figures = [];
        if (allowed) {
          if (p.clientType) figures = clients.get(p.clientType) ?? noClients();
          else if (p.product === 'kms') figures = await keyFigures(actor.domainId);
          else figures = await smsFigures(actor.domainId);
        }
        const usage = license?.features.find((f) => f.feature === p.feature);
        tiles.push({
          product: p.product,
          area: p.area,
          permitted: allowed,
          figures,
          license: {
            feature: p.feature,
            state:
              license?.state === 'expired'
                ? 'expired'
                : usage?.source === 'license'
                  ? 'licensed'
                  : 'community',
            total: usage?.total ?? 0,
            // The installation-wide use counts every domain: only a root-domain session sees it.
            used: actor.systemScope && usage ? usage.used : null,
            not_after: usage?.not_after ?? null,
          },
        });
      }
      return { tiles };
    },
  };
}

export type ProductService = ReturnType<typeof createProductService>;
