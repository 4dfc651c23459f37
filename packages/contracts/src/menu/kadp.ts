import { consoleAreas } from '../areas.js';
import { group, page, type MenuNode } from './model.js';

const { path, permission } = consoleAreas.kadp;

/** Page keys of the KADP sub-console (docs/modules.md#console-routes: `/kadp/clients`, `/kadp/clients/clients-details/{id}`). */
export const kadpPageKeys = ['kadp/clients/index', 'kadp/clients/clients-details'] as const;

/** The KADP sub-console (docs/modules.md#kadp): application clients and the detail of one. */
export const kadpMenu: MenuNode = group('Kadp', path, { title: 'kadp', icon: 'kadp' }, [
  page('KadpClients', `${path}/clients`, permission, { title: 'kadpClients', icon: 'kadpClients' }),
  {
    path: `${path}/clients/clients-details/:id`,
    name: 'KadpClientDetail',
    component: 'kadp/clients/clients-details',
    permission,
    hidden: true,
    meta: { title: 'kadpClientDetail', noCache: true },
  },
]);
