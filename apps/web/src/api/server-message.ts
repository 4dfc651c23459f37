import { formatDateTime } from '../components/date-time';

/** A UTC instant as the server writes it into a message (ISO 8601, `Z`). */
const UTC_INSTANT = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?Z\b/g;

/**
 * A server message as the user reads it: the server answers in the user's language but
 * cannot know their time zone, so the instants it names ("try again after
 * 2026-11-29T03:53:46.130Z") are shown in the browser's local time, in the console's one
 * date-time format ("try again after 2026-11-29 11:53:46" in UTC+8).
 */
export function localizeServerMessage(text: string): string {
  return text.replace(UTC_INSTANT, (instant) =>
    Number.isNaN(Date.parse(instant)) ? instant : formatDateTime(instant),
  );
}
