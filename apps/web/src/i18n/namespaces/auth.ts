import { auth as en } from '../en/auth';
import { auth as zh } from '../zh/auth';

export const auth = { en, zh };
