import { common as en } from '../en/common';
import { common as zh } from '../zh/common';

export const common = { en, zh };
