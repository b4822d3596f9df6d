<?php

declare(strict_types=1);

namespace App\Application\Task;

use App\Domain\Repository\AppTokenRepositoryInterface;
use Doctrine\ORM\EntityManagerInterface;

/** Removes the AppToken the ending session registered: no push reaches a signed-out device. */
final class DeleteDeviceTask
{
    public function __construct(
        private readonly EntityManagerInterface $em,
        private readonly AppTokenRepositoryInterface $appTokenRepository,
    ) {
    }

    public function __invoke(string $sessionId): void
    {
        foreach ($this->appTokenRepository->findBySessionId($sessionId) as $appToken) {
            $this->em->remove($appToken);
        }
        $this->em->flush();
    }
}
