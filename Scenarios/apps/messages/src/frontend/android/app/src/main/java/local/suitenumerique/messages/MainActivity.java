package local.suitenumerique.messages;

import com.getcapacitor.BridgeActivity;

public class MainActivity extends BridgeActivity {}
