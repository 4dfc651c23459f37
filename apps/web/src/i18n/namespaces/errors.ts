import { errors as en } from '../en/errors';
import { errors as zh } from '../zh/errors';

export const errors = { en, zh };
