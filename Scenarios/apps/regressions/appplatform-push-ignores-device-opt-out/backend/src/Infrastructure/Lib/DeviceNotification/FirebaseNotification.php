<?php

declare(strict_types=1);

namespace App\Infrastructure\Lib\DeviceNotification;

use App\Domain\Entity\Device;
use App\Domain\Service\DeviceNotificationInterface;
use Symfony\Contracts\HttpClient\HttpClientInterface;

final class FirebaseNotification implements DeviceNotificationInterface
{
    public function __construct(
        private readonly HttpClientInterface $httpClient,
        private readonly string $firebaseProjectId,
    ) {
    }

    public function sendToDevice(Device $device, string $title, string $body, string $targetUrl): void
    {
        if (!$device->getPushToken()) {
            return;
        }

        $payload = [
            'message' => [
                'token' => $device->getPushToken(),
                'notification' => [
                    'title' => $title,
                    'body' => $body,
                ],
                'data' => [
                    'targetUrl' => $targetUrl,
                ],
            ],
        ];

        $this->httpClient->request(
            'POST',
            "https://fcm.googleapis.com/v1/projects/{$this->firebaseProjectId}/messages:send",
            [
                'json' => $payload,
            ]
        );
    }
}
