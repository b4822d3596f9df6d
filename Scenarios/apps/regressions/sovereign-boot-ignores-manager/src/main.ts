import { resolveDeepLink } from './deep-link';
import { loadInstance, renderOnboarding } from './onboarding';
import { getActiveUrl, listInstances, setActiveUrl } from './store';

const root = document.getElementById('app') as HTMLElement;

function isBackForward(): boolean {
  const entry = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined;
  return entry?.type === 'back_forward';
}

async function handleDeepLink(raw: string): Promise<boolean> {
  const link = resolveDeepLink(raw, await listInstances());
  if (!link) return false;
  if (link.kind === 'known') {
    await setActiveUrl(link.instance.url);
    loadInstance(link.instance.url + link.path);
  } else {
    await renderOnboarding(root, { prefillUrl: link.origin, pendingPath: link.path });
  }
  return true;
}

async function boot(): Promise<void> {
  const params = new URLSearchParams(window.location.search);
  const deeplink = params.get('deeplink');
  if (deeplink && (await handleDeepLink(deeplink))) return;
  const active = await getActiveUrl();
  if (active !== null && !isBackForward()) {
    loadInstance(active);
    return;
  }
  await renderOnboarding(root);
}

// A back-forward cache restore does not run boot() again: show the manager.
window.addEventListener('pageshow', (event) => {
  if (event.persisted) void renderOnboarding(root);
});

void boot();
