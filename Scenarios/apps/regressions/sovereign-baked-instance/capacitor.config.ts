import type { CapacitorConfig } from '@capacitor/cli';

const config: CapacitorConfig = {
  appId: 'fs.sovereign.mobile',
  appName: 'Sovereign',
  // Only the local onboarding page is bundled. The instance is chosen at run time and
  // reached with location.assign(), so no server.url and no server.allowNavigation here.
  webDir: 'dist',
  server: {
    url: 'https://work.example',
  },
  plugins: {
    // Instance checks go through the native HTTP stack (no CORS preflight on /api/instance).
    CapacitorHttp: {
      enabled: true,
    },
  },
};

export default config;
