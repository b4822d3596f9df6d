<?php

declare(strict_types=1);

namespace App\Infrastructure\Security;

use App\Application\Task\DeleteDeviceTask;
use Symfony\Component\EventDispatcher\EventSubscriberInterface;
use Symfony\Component\Security\Http\Event\LogoutEvent;

final class LogoutSubscriber implements EventSubscriberInterface
{
    public function __construct(private readonly DeleteDeviceTask $deleteDeviceTask)
    {
    }

    public static function getSubscribedEvents(): array
    {
        return [LogoutEvent::class => 'onLogout'];
    }

    public function onLogout(LogoutEvent $event): void
    {
        ($this->deleteDeviceTask)($event->getRequest()->getSession()->getId());
    }
}
