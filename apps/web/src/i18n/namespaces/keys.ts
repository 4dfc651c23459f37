import { keys as en } from '../en/keys';
import { keys as zh } from '../zh/keys';

export const keys = { en, zh };
