import { consoleAreas } from '../areas.js';
import { group, keyPages, type MenuNode } from './model.js';

const { path, permission } = consoleAreas.kms;

/** Page keys of the KMS sub-console. */
export const kmsPageKeys = ['kms/key/index', 'kms/key/detail'] as const;

/** The KMS sub-console: its keys, as the main console shows them. */
export const kmsMenu: MenuNode = group('Kms', path, { title: 'kms', icon: 'kms' }, [
  ...keyPages('KmsKey', `${path}/key`, permission),
]);
