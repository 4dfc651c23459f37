import { createContext, useContext, useState } from 'react';
import { useSearchParams, type SetURLSearchParams } from 'react-router';

/**
 * Whether the view is the one on screen. Kept-alive views stay mounted while hidden;
 * they read this to ignore the URL of the view that is showing.
 */
export const ViewActiveContext = createContext(true);

export function useViewActive(): boolean {
  return useContext(ViewActiveContext);
}

/** `useSearchParams`, frozen at the view's own last values while it is hidden. */
export function useViewSearchParams(): [URLSearchParams, SetURLSearchParams] {
  const active = useViewActive();
  const [live, setLive] = useSearchParams();
  const [kept, setKept] = useState(live);
  if (active && kept.toString() !== live.toString()) setKept(live);
  return [active ? live : kept, setLive];
}
