import { system as en } from '../en/system';
import { system as zh } from '../zh/system';

export const system = { en, zh };
