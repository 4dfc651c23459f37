import { account as en } from '../en/account';
import { account as zh } from '../zh/account';

export const account = { en, zh };
