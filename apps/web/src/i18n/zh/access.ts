import type { Catalogue } from '../catalogue';
import type { access as en } from '../en/access';

export const access: Catalogue<typeof en> = {
  placeholder: '建设中',
};
