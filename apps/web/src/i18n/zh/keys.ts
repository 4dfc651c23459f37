import type { Catalogue } from '../catalogue';
import type { keys as en } from '../en/keys';

export const keys: Catalogue<typeof en> = {
  placeholder: '建设中',
};
