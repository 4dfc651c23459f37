import dayjs from 'dayjs';

/** The one date-time format of the console (tables, details, pickers). */
export const DATE_TIME_FORMAT = 'YYYY-MM-DD HH:mm:ss';

/** A date-time as text, or "-" when there is none. */
export function formatDateTime(value: string | number | Date | null | undefined): string {
  return value === null || value === undefined || value === '' ? '-' : dayjs(value).format(DATE_TIME_FORMAT);
}
