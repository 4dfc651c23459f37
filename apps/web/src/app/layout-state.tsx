import {
  createContext,
  useContext,
  useEffect,
  useMemo,
  useState,
  useSyncExternalStore,
  type ReactNode,
} from 'react';
import Cookies from 'js-cookie';

/** Below this width the layout is mobile and the side menu closes (docs/console.md#layout). */
export const MOBILE_BREAKPOINT = 992;
export const SIDEBAR_COOKIE = 'sidebarStatus';
export const SIZE_COOKIE = 'size';

export type Device = 'desktop' | 'mobile';
export type ComponentSize = 'small' | 'medium' | 'large';

export function deviceFor(width: number): Device {
  return width < MOBILE_BREAKPOINT ? 'mobile' : 'desktop';
}

function subscribeResize(listener: () => void): () => void {
  window.addEventListener('resize', listener);
  return () => window.removeEventListener('resize', listener);
}

export function useDevice(): Device {
  return useSyncExternalStore(subscribeResize, () => deviceFor(window.innerWidth));
}

function readSize(): ComponentSize {
  const value = Cookies.get(SIZE_COOKIE);
  return value === 'small' || value === 'large' ? value : 'medium';
}

interface LayoutState {
  device: Device;
  sidebarOpened: boolean;
  toggleSidebar: () => void;
  closeSidebar: () => void;
  size: ComponentSize;
  setSize: (size: ComponentSize) => void;
}

const LayoutStateContext = createContext<LayoutState | null>(null);

/** Sidebar open state and component size, kept in the cookies `sidebarStatus` and `size`. */
export function LayoutStateProvider({ children }: { children: ReactNode }) {
  const device = useDevice();
  const [sidebarOpened, setSidebarOpened] = useState(
    () => device === 'desktop' && Cookies.get(SIDEBAR_COOKIE) !== '0',
  );
  const [size, setSizeState] = useState<ComponentSize>(readSize);

  const [previousDevice, setPreviousDevice] = useState(device);
  if (device !== previousDevice) {
    // Entering the mobile layout closes the menu (adjusting state while rendering).
    setPreviousDevice(device);
    if (device === 'mobile') setSidebarOpened(false);
  }

  useEffect(() => {
    Cookies.set(SIDEBAR_COOKIE, sidebarOpened ? '1' : '0', { expires: 365, path: '/', sameSite: 'Lax' });
  }, [sidebarOpened]);

  useEffect(() => {
    Cookies.set(SIZE_COOKIE, size, { expires: 365, path: '/', sameSite: 'Lax' });
  }, [size]);

  const value = useMemo<LayoutState>(
    () => ({
      device,
      sidebarOpened,
      toggleSidebar: () => setSidebarOpened((opened) => !opened),
      closeSidebar: () => setSidebarOpened(false),
      size,
      setSize: setSizeState,
    }),
    [device, sidebarOpened, size],
  );
  return <LayoutStateContext value={value}>{children}</LayoutStateContext>;
}

export function useLayoutState(): LayoutState {
  const value = useContext(LayoutStateContext);
  if (!value) throw new Error('useLayoutState outside LayoutStateProvider');
  return value;
}
