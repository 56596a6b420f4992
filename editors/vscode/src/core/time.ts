// Relative times for History: "just now", "5 minutes ago", "yesterday",
// "3 days ago", then the date.

const minute = 60_000;
const hour = 60 * minute;
const day = 24 * hour;
const rtf = new Intl.RelativeTimeFormat("en", { numeric: "auto" });
const months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/**
 * relativeTime says how long ago iso (an ISO 8601 time, as session/list
 * gives) was, seen at now; "" for a missing or unreadable time. Times up to
 * a minute in the future (clock skew) count as just now.
 */
export function relativeTime(iso: string | null | undefined, now: Date): string {
  if (!iso) return "";
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return "";
  const ago = now.getTime() - t;
  if (ago < -minute) return dateOf(new Date(t), now);
  if (ago < 45_000) return "just now";
  if (ago < hour) return rtf.format(-Math.max(1, Math.round(ago / minute)), "minute");
  if (ago < day) return rtf.format(-Math.round(ago / hour), "hour");
  const days = calendarDays(new Date(t), now);
  if (days <= 1) return "yesterday";
  if (days < 7) return rtf.format(-days, "day");
  return dateOf(new Date(t), now);
}

/** calendarDays counts the midnights between then and now, in local time. */
function calendarDays(then: Date, now: Date): number {
  const a = new Date(then.getFullYear(), then.getMonth(), then.getDate()).getTime();
  const b = new Date(now.getFullYear(), now.getMonth(), now.getDate()).getTime();
  return Math.round((b - a) / day);
}

function dateOf(d: Date, now: Date): string {
  const s = `${d.getDate()} ${months[d.getMonth()]}`;
  return d.getFullYear() === now.getFullYear() ? s : `${s} ${d.getFullYear()}`;
}
